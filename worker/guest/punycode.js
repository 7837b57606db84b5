// Punycode (RFC 3492) for URL host labels: a label with non-ASCII characters becomes "xn--" and its
// encoding (the case mapping the URL parser already did; the rest of the IDNA mapping is not done).
import { append, MathFloor, StringFromCharCode, StringPrototypeCharCodeAt } from "nodetool:intrinsics";

function codePoints(text) {
  const out = [];
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    const d = i + 1 < text.length ? StringPrototypeCharCodeAt(text, i + 1) : 0;
    if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
      append(out, 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00));
      i++;
    } else append(out, c);
  }
  return out;
}

const digit = (d) => StringFromCharCode(d < 26 ? 97 + d : 22 + d);

function adapt(delta, points, first) {
  let d = first ? MathFloor(delta / 700) : delta >> 1;
  d += MathFloor(d / points);
  let k = 0;
  while (d > 455) {
    d = MathFloor(d / 35);
    k += 36;
  }
  return k + MathFloor((36 * d) / (d + 38));
}

function encode(text) {
  const points = codePoints(text);
  let out = "";
  for (let i = 0; i < points.length; i++) if (points[i] < 128) out += StringFromCharCode(points[i]);
  const basic = out.length;
  let handled = basic;
  if (basic > 0) out += "-";
  let n = 128;
  let delta = 0;
  let bias = 72;
  while (handled < points.length) {
    let m = 0x10ffff + 1;
    for (let i = 0; i < points.length; i++) if (points[i] >= n && points[i] < m) m = points[i];
    delta += (m - n) * (handled + 1);
    n = m;
    for (let i = 0; i < points.length; i++) {
      if (points[i] < n) delta++;
      if (points[i] !== n) continue;
      let q = delta;
      for (let k = 36; ; k += 36) {
        const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
        if (q < t) break;
        out += digit(t + ((q - t) % (36 - t)));
        q = MathFloor((q - t) / (36 - t));
      }
      out += digit(q);
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return out;
}

/** The label as the URL host holds it: unchanged when ASCII, else "xn--" + its punycode. */
export function toAsciiLabel(label) {
  for (let i = 0; i < label.length; i++) {
    if (StringPrototypeCharCodeAt(label, i) > 0x7f) return `xn--${encode(label)}`;
  }
  return label;
}
