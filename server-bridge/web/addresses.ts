/**
 * Which IP addresses an outbound request may reach. Pure: parses IPv4 and IPv6 text (zone ids,
 * embedded IPv4, `::` compression) and names the special-purpose range an address falls in, or
 * `undefined` for an ordinary public address. IPv6 forms that carry an IPv4 address (v4-mapped,
 * v4-compatible, NAT64, 6to4) are judged by that IPv4 address, so `::ffff:127.0.0.1` is loopback.
 */
import { isIPv4, isIPv6 } from "node:net";

/** Why an address is refused: the class named in messages. */
export type AddressClass =
  | "unspecified"
  | "loopback"
  | "private"
  | "shared (carrier-grade NAT)"
  | "link-local"
  | "cloud metadata"
  | "unique-local"
  | "multicast"
  | "reserved"
  | "documentation";

type Range4 = readonly [base: number, bits: number, why: AddressClass];

function ip4(text: string): number {
  return text.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}

// Order matters: the metadata address sits inside link-local and must be named first.
const V4: readonly Range4[] = [
  [ip4("0.0.0.0"), 8, "unspecified"],
  [ip4("10.0.0.0"), 8, "private"],
  [ip4("100.64.0.0"), 10, "shared (carrier-grade NAT)"],
  [ip4("127.0.0.0"), 8, "loopback"],
  [ip4("169.254.169.254"), 32, "cloud metadata"],
  [ip4("169.254.0.0"), 16, "link-local"],
  [ip4("172.16.0.0"), 12, "private"],
  [ip4("192.0.0.0"), 24, "reserved"],
  [ip4("192.0.2.0"), 24, "documentation"],
  [ip4("192.88.99.0"), 24, "reserved"],
  [ip4("192.168.0.0"), 16, "private"],
  [ip4("198.18.0.0"), 15, "reserved"],
  [ip4("198.51.100.0"), 24, "documentation"],
  [ip4("203.0.113.0"), 24, "documentation"],
  [ip4("224.0.0.0"), 4, "multicast"],
  [ip4("240.0.0.0"), 4, "reserved"],
];

function classify4(value: number): AddressClass | undefined {
  for (const [base, bits, why] of V4) {
    if (value >= base && value < base + 2 ** (32 - bits)) return why;
  }
  return undefined;
}

/** Eight 16-bit groups, or undefined when `text` is not IPv6. Brackets and a zone id are ignored. */
export function parseIPv6(text: string): number[] | undefined {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!isIPv6(bare)) return undefined;
  let head = bare;
  const tail: number[] = [];
  const dotted = bare.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const prefix = dotted[1] as string;
    const v4 = ip4(dotted[2] as string);
    tail.push(Math.floor(v4 / 65536), v4 % 65536);
    head = prefix.endsWith("::") ? prefix : prefix.slice(0, -1);
  }
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const [left = "", right] = head.split("::");
  const leftGroups = groups(left);
  const rightGroups = [...(right === undefined ? [] : groups(right)), ...tail];
  if (right === undefined) return [...leftGroups, ...rightGroups];
  const zeros = new Array<number>(8 - leftGroups.length - rightGroups.length).fill(0);
  return [...leftGroups, ...zeros, ...rightGroups];
}

const embedded = (hi: number, lo: number) => hi * 65536 + lo;

function classify6(g: readonly number[]): AddressClass | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0xffff) return classify4(embedded(g6, g7)); // v4-mapped ::ffff:a.b.c.d
  if (upperZero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return "unspecified";
    if (g6 === 0 && g7 === 1) return "loopback";
    return classify4(embedded(g6, g7)) ?? "reserved"; // deprecated v4-compatible ::a.b.c.d
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classify4(embedded(g6, g7)); // NAT64 64:ff9b::a.b.c.d
  }
  if (g0 === 0x2002) return classify4(embedded(g1, g2)); // 6to4 2002:aabb:ccdd::/48
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local"; // fc00::/7, incl. fd00:ec2::254
  if ((g0 & 0xffc0) === 0xfe80) return "link-local"; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return "private"; // fec0::/10, deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation";
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "reserved"; // discard-only 100::/64
  if (g0 === 0x2001 && g1 < 0x0200) return "reserved"; // IETF protocol assignments (Teredo, ORCHID, ...)
  return undefined;
}

/**
 * The special-purpose class of an IP address, `undefined` for a public one. Throws on text that is
 * not an IP address: callers pass only literals or resolver answers.
 */
export function classifyAddress(address: string): AddressClass | undefined {
  if (isIPv4(address)) return classify4(ip4(address));
  const groups = parseIPv6(address);
  if (!groups) throw new Error(`not an IP address: ${address}`);
  return classify6(groups);
}
