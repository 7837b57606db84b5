/**
 * The outbound policy: which URLs `http_request` may reach. A URL passes when its scheme is http(s)
 * and every address its host resolves to is public, or when the operator allows it (all private
 * addresses, or this host / host:port). The answer lists the addresses to connect to, so the
 * connection goes where the check looked and a second DNS answer can never swap it (DNS rebinding).
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { failed } from "../capabilities/errors.ts";
import type { ServerConfig } from "../config.ts";
import { classifyAddress } from "./addresses.ts";

export interface WebPolicy {
  /** Every address class allowed (`HTTP_ALLOW_PRIVATE`). */
  readonly allowPrivate: boolean;
  /** `host` or `host:port` (IPv6 in brackets), lower case: reachable whatever they resolve to. */
  readonly allowHosts: readonly string[];
  readonly maxResponseBytes: number;
  readonly maxRedirects: number;
}

/** What a host without configuration gets: public addresses only. */
export const STRICT_WEB_POLICY: WebPolicy = {
  allowPrivate: false,
  allowHosts: [],
  maxResponseBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
};

export function webPolicy(config: ServerConfig): WebPolicy {
  return {
    allowPrivate: config.httpAllowPrivate,
    allowHosts: config.httpAllowHosts,
    maxResponseBytes: config.httpMaxResponseBytes,
    maxRedirects: config.httpMaxRedirects,
  };
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Where one hop connects: the host as named (for Host, SNI and certificates) and the vetted addresses. */
export interface Target {
  readonly url: URL;
  /** Host name or IP literal without brackets. */
  readonly hostname: string;
  readonly port: number;
  /** Every address the check passed, in resolver order; the connection may use only these. */
  readonly addresses: readonly ResolvedAddress[];
}

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** Whether the operator allows this URL's host (and port) whatever it resolves to. */
export function hostAllowed(url: URL, policy: WebPolicy): boolean {
  const host = url.hostname.toLowerCase();
  const withPort = `${host}:${defaultPort(url)}`;
  return policy.allowHosts.some((entry) => entry === host || entry === withPort);
}

/**
 * Checks one hop. Throws a coded refusal naming the URL and why (`what` is "" for the first hop and
 * "the redirect to " for later ones).
 */
export async function vetTarget(
  url: URL,
  policy: WebPolicy,
  what = "",
  resolve: Resolver = systemResolver,
): Promise<Target> {
  const shown = `${what}${url.origin}`;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw failed(`http_request refused ${what}${url.protocol} URL: only http:// and https:// URLs can be requested.`);
  }
  if (url.username || url.password) {
    throw failed(
      `http_request refused ${shown}: the URL carries credentials. Send them in an Authorization header instead.`,
    );
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const port = defaultPort(url);
  let answers: ResolvedAddress[];
  if (isIP(hostname)) {
    answers = [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }];
  } else {
    try {
      answers = await resolve(hostname);
    } catch {
      throw failed(`http_request could not resolve the host of ${shown}. Check the URL's host name.`);
    }
    if (answers.length === 0) throw failed(`http_request found no address for ${shown}.`);
  }
  if (policy.allowPrivate || hostAllowed(url, policy)) return { url, hostname, port, addresses: answers };
  // Every answer must be public: a name with one private answer could be steered there later.
  for (const answer of answers) {
    const why = classifyAddress(answer.address);
    if (why !== undefined) {
      const via = answer.address === hostname ? "" : ` resolves to ${answer.address}, which`;
      throw failed(
        `http_request refused ${shown}: the host${via} is a ${why} address. The server only requests public addresses unless the operator allows this host in its configuration; do not retry with another spelling of the same address.`,
      );
    }
  }
  return { url, hostname, port, addresses: answers };
}
