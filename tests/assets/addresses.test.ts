/** The address classes the outbound guard refuses, and the public addresses it lets through. */
import { describe, expect, it } from "vitest";
import { classifyAddress, parseIPv6 } from "../../server-bridge/web/addresses.ts";
import { hostAllowed, STRICT_WEB_POLICY, vetTarget } from "../../server-bridge/web/vet.ts";

const REFUSED: [string, string][] = [
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["169.254.1.1", "link-local"],
  ["169.254.169.254", "cloud metadata"],
  ["100.64.0.1", "shared (carrier-grade NAT)"],
  ["100.127.255.255", "shared (carrier-grade NAT)"],
  ["100.100.100.200", "shared (carrier-grade NAT)"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["255.255.255.255", "reserved"],
  ["198.18.0.1", "reserved"],
  ["192.0.2.5", "documentation"],
  ["::1", "loopback"],
  ["::", "unspecified"],
  ["fc00::1", "unique-local"],
  ["fdff:ffff::1", "unique-local"],
  ["fd00:ec2::254", "unique-local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "private"],
  ["ff02::1", "multicast"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:169.254.169.254", "cloud metadata"],
  ["0:0:0:0:0:ffff:c0a8:0101", "private"],
  ["::127.0.0.1", "loopback"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a9fe:a9fe", "cloud metadata"],
  ["2002:7f00:1::", "loopback"],
  ["2001:db8::1", "documentation"],
  ["2001::1", "reserved"],
  ["100::1", "reserved"],
];

const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "172.32.0.1",
  "100.128.0.1",
  "2606:4700::1111",
  "::ffff:8.8.8.8",
];

describe("address classes", () => {
  it.each(REFUSED)("%s is %s", (address, why) => {
    expect(classifyAddress(address)).toBe(why);
  });

  it.each(PUBLIC)("%s is public", (address) => {
    expect(classifyAddress(address)).toBeUndefined();
  });

  it("parses IPv6 with compression, embedded IPv4, brackets and zones", () => {
    expect(parseIPv6("[::ffff:127.0.0.1]")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6("1::8")).toEqual([1, 0, 0, 0, 0, 0, 0, 8]);
    expect(parseIPv6("fe80::1%25eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("not-an-address")).toBeUndefined();
  });
});

describe("vetting a URL", () => {
  const refusedBy = async (url: string, resolve?: (h: string) => Promise<{ address: string; family: 4 | 6 }[]>) => {
    try {
      await vetTarget(new URL(url), STRICT_WEB_POLICY, "", resolve);
    } catch (err) {
      return (err as Error).message;
    }
    return "passed";
  };

  it("refuses every private class spelled as a URL, including the forms URL parsing normalises", async () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://0/",
      "http://[::1]:8080/",
      "http://[::ffff:127.0.0.1]/",
      "http://169.254.169.254/latest/meta-data/",
      "https://10.0.0.1/",
    ]) {
      expect(await refusedBy(url), url).toMatch(/is a .* address/);
    }
  });

  it("refuses a name when any of its addresses is private, and connects to the address it checked", async () => {
    const mixed = async () => [
      { address: "93.184.216.34", family: 4 as const },
      { address: "10.0.0.7", family: 4 as const },
    ];
    expect(await refusedBy("http://mixed.test/", mixed)).toMatch(/resolves to 10\.0\.0\.7, which is a private address/);
    const target = await vetTarget(new URL("https://public.test/x"), STRICT_WEB_POLICY, "", async () => [
      { address: "93.184.216.34", family: 4 },
    ]);
    expect(target).toMatchObject({
      hostname: "public.test",
      port: 443,
      addresses: [{ address: "93.184.216.34", family: 4 }],
    });
  });

  it("refuses other schemes and credentials in the URL", async () => {
    expect(await refusedBy("file:///etc/passwd")).toMatch(/only http:\/\/ and https:\/\//);
    expect(await refusedBy("ftp://example.com/")).toMatch(/only http/);
    expect(await refusedBy("http://user:pw@example.com/")).toMatch(/carries credentials/);
  });

  it("allows a host, or exactly one host:port, named by the operator", () => {
    const policy = { ...STRICT_WEB_POLICY, allowHosts: ["127.0.0.1:8080", "intranet.test", "[::1]:9000"] };
    expect(hostAllowed(new URL("http://127.0.0.1:8080/a"), policy)).toBe(true);
    expect(hostAllowed(new URL("http://127.0.0.1:8081/a"), policy)).toBe(false);
    expect(hostAllowed(new URL("http://localhost:8080/a"), policy)).toBe(false);
    expect(hostAllowed(new URL("https://intranet.test/"), policy)).toBe(true);
    expect(hostAllowed(new URL("http://[::1]:9000/"), policy)).toBe(true);
    expect(hostAllowed(new URL("http://[::1]:9001/"), policy)).toBe(false);
  });
});
