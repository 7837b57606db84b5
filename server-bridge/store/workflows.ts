/**
 * Workflow rows: per user, versioned, optimistic concurrency on update; an update keeps the version it
 * replaces (`workflow_versions`, the newest VERSIONS_KEPT). Every write is announced to `onChange` (the
 * per-user change feed that keeps every open page's workflow picker current).
 */
import { newId } from "../../shared/gate/approvals.ts";
import { Graph, type Workflow } from "../../shared/graph/document.ts";
import { fromJsonText, toJsonText } from "../../shared/protocol/values.ts";
import { failed, notFound } from "../capabilities/errors.ts";
import type { Store } from "./db.ts";

interface Row {
  id: string;
  name: string;
  description: string;
  graph: string;
  version: number;
  created_at: number;
  updated_at: number;
}

/** What a write announces: the change and the workflow as a picker lists it. */
export interface WorkflowChange {
  change: "created" | "updated" | "deleted";
  workflow: { id: string; name?: string; description?: string; version?: number; updated_at?: string };
}

interface VersionRow {
  version: number;
  name: string;
  description: string;
  graph: string;
  saved_at: number;
}

/** An earlier version of a workflow: what it was until the update that replaced it. */
export interface WorkflowVersion {
  version: number;
  name: string;
  description: string;
  graph: Graph;
  saved_at: string;
}

export type WorkflowVersionSummary = Omit<WorkflowVersion, "graph"> & { nodes: number; edges: number };

/** How many earlier versions of a workflow are kept. */
export const VERSIONS_KEPT = 50;

/** A stored time in milliseconds (Postgres hands a BIGINT over as text) as an ISO time. */
const isoTime = (ms: number | string) => new Date(Number(ms)).toISOString();

function toVersion(row: VersionRow): WorkflowVersion {
  return {
    version: row.version,
    name: row.name,
    description: row.description,
    graph: Graph.parse(fromJsonText(row.graph, "graph")),
    saved_at: isoTime(row.saved_at),
  };
}

const NOT_FOUND_HINT = "Call workflows.list() to see the ids that exist.";

function toWorkflow(row: Row): Workflow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    graph: Graph.parse(fromJsonText(row.graph, "graph")),
    version: row.version,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export class WorkflowStore {
  constructor(
    private readonly store: Store,
    private readonly onChange: (change: WorkflowChange) => void = () => {},
  ) {}

  #announce(change: WorkflowChange["change"], workflow: Workflow | { id: string }): void {
    const { id } = workflow;
    this.onChange(
      "version" in workflow
        ? {
            change,
            workflow: {
              id,
              name: workflow.name,
              description: workflow.description,
              version: workflow.version,
              updated_at: workflow.updated_at,
            },
          }
        : { change, workflow: { id } },
    );
  }

  async list(userId: string, opts: { limit: number; offset: number; query?: string | undefined }) {
    const rows = (await this.store
      .sql(
        `SELECT id, name, description, version, updated_at FROM workflows
         WHERE user_id = ? AND (CAST(? AS TEXT) IS NULL OR instr(lower(name), lower(?)) > 0)
         ORDER BY updated_at DESC, id LIMIT ? OFFSET ?`,
      )
      .all(userId, opts.query ?? null, opts.query ?? null, opts.limit, opts.offset)) as Omit<
      Row,
      "graph" | "created_at"
    >[];
    return rows.map((row) => ({ ...row, updated_at: new Date(row.updated_at).toISOString() }));
  }

  async find(userId: string, id: string): Promise<Workflow | undefined> {
    const row = (await this.store.sql("SELECT * FROM workflows WHERE id = ? AND user_id = ?").get(id, userId)) as
      | Row
      | undefined;
    return row ? toWorkflow(row) : undefined;
  }

  async require(userId: string, id: string): Promise<Workflow> {
    const workflow = await this.find(userId, id);
    if (!workflow) throw notFound("workflow", id, NOT_FOUND_HINT);
    return workflow;
  }

  async create(userId: string, input: { name: string; description: string; graph: Graph }): Promise<Workflow> {
    const at = Date.now();
    const id = newId("wf");
    await this.store
      .sql(
        "INSERT INTO workflows (id, user_id, name, description, graph, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
      )
      .run(id, userId, input.name, input.description, toJsonText(input.graph, "graph"), at, at);
    const created = await this.require(userId, id);
    this.#announce("created", created);
    return created;
  }

  async update(
    userId: string,
    input: {
      workflow_id: string;
      name?: string | undefined;
      description?: string | undefined;
      graph?: Graph | undefined;
      expected_version?: number | undefined;
    },
  ): Promise<Workflow> {
    const updated = await this.store.tx(async () => {
      const current = await this.require(userId, input.workflow_id);
      if (input.expected_version !== undefined && input.expected_version !== current.version) {
        throw failed(
          `Version conflict on workflow "${current.id}": you expected version ${input.expected_version}, the stored one is ${current.version}. Read it again with workflows.get and reapply your change.`,
        );
      }
      await this.#keep(userId, current);
      await this.store
        .sql(
          "UPDATE workflows SET name = ?, description = ?, graph = ?, version = version + 1, updated_at = ? WHERE id = ? AND user_id = ?",
        )
        .run(
          input.name ?? current.name,
          input.description ?? current.description,
          toJsonText(input.graph ?? current.graph, "graph"),
          Date.now(),
          current.id,
          userId,
        );
      return await this.require(userId, current.id);
    });
    this.#announce("updated", updated);
    return updated;
  }

  /** Keeps the version an update replaces; past `VERSIONS_KEPT`, the oldest go. */
  async #keep(userId: string, current: Workflow): Promise<void> {
    await this.store
      .sql(
        `INSERT INTO workflow_versions (workflow_id, version, user_id, name, description, graph, node_count, edge_count, saved_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        current.id,
        current.version,
        userId,
        current.name,
        current.description,
        toJsonText(current.graph, "graph"),
        current.graph.nodes.length,
        current.graph.edges.length,
        Date.parse(current.updated_at),
      );
    await this.store
      .sql("DELETE FROM workflow_versions WHERE workflow_id = ? AND version <= ?")
      .run(current.id, current.version - VERSIONS_KEPT);
  }

  /** The earlier versions of one of the user's workflows, newest first (without their graphs). */
  async versions(userId: string, id: string): Promise<WorkflowVersionSummary[]> {
    await this.require(userId, id);
    const rows = (await this.store
      .sql(
        `SELECT version, name, description, node_count, edge_count, saved_at FROM workflow_versions
         WHERE workflow_id = ? AND user_id = ? ORDER BY version DESC`,
      )
      .all(id, userId)) as (Omit<VersionRow, "graph"> & { node_count: number; edge_count: number })[];
    return rows.map((row) => ({
      version: row.version,
      name: row.name,
      description: row.description,
      saved_at: isoTime(row.saved_at),
      nodes: Number(row.node_count),
      edges: Number(row.edge_count),
    }));
  }

  /** One of the user's workflows as it was at `version` (the current one, or one kept), with its graph. */
  async version(userId: string, id: string, version: number): Promise<Workflow> {
    const current = await this.require(userId, id);
    if (version === current.version) return current;
    const row = (await this.store
      .sql(
        `SELECT version, name, description, graph, saved_at FROM workflow_versions
         WHERE workflow_id = ? AND user_id = ? AND version = ?`,
      )
      .get(id, userId, version)) as VersionRow | undefined;
    if (!row) {
      throw failed(
        `Workflow "${id}" has no kept version ${version} (its current version is ${current.version}). Call workflows.versions(workflow_id) to see the versions kept.`,
      );
    }
    const { saved_at: savedAt, ...kept } = toVersion(row);
    return { ...current, ...kept, updated_at: savedAt };
  }

  async delete(userId: string, id: string): Promise<void> {
    const result = await this.store.sql("DELETE FROM workflows WHERE id = ? AND user_id = ?").run(id, userId);
    if (result.changes === 0) throw notFound("workflow", id, NOT_FOUND_HINT);
    this.#announce("deleted", { id });
  }
}
