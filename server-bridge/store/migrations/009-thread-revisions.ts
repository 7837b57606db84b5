/**
 * A revision per conversation, bumped by every write to its messages (triggers, so any writer bumps
 * it: another process on the same store, an operator's hand edit): a server that holds a thread's
 * messages in memory reads them again only when they changed since, not on every model turn.
 */
export const threadRevisions = `
ALTER TABLE agent_threads ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER agent_messages_insert_rev AFTER INSERT ON agent_messages BEGIN
  UPDATE agent_threads SET rev = rev + 1 WHERE id = NEW.thread_id;
END;
CREATE TRIGGER agent_messages_update_rev AFTER UPDATE ON agent_messages BEGIN
  UPDATE agent_threads SET rev = rev + 1 WHERE id IN (OLD.thread_id, NEW.thread_id);
END;
CREATE TRIGGER agent_messages_delete_rev AFTER DELETE ON agent_messages BEGIN
  UPDATE agent_threads SET rev = rev + 1 WHERE id = OLD.thread_id;
END;
`;
