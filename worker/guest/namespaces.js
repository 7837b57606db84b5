// The `nodetool` global's value, built from a method table shared/sandbox/facade.ts generates for the
// mounted namespaces: one getter per namespace, each building its frozen object of methods (the same
// bridge calls as the facades) when first touched. Loaded the first time an action reads `nodetool`.
import { bind, guard } from "nodetool:bridge";
import { defineField, JSONParse, ObjectDefineProperty, ObjectFreeze, ObjectKeys } from "nodetool:intrinsics";

/** The shim over `tableText`: `{namespace: [specifier, [[method, wire], ...]]}` as JSON. */
export function shim(tableText) {
  const table = JSONParse(tableText);
  const out = {};
  const names = ObjectKeys(table);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    let built;
    ObjectDefineProperty(out, name, {
      enumerable: true,
      get() {
        if (!built) {
          const entry = table[name];
          const methods = entry[1];
          built = {};
          for (let j = 0; j < methods.length; j++) defineField(built, methods[j][0], bind(entry[0], methods[j][1]));
          built = guard(entry[0], ObjectFreeze(built));
        }
        return built;
      },
    });
  }
  return ObjectFreeze(out);
}
