/**
 * The session's mode, picked in the page's header (and the widget's, up to its highest mode). Each
 * option says what the mode does with an action's calls (DESIGN.md section 4's matrix).
 */
import { MODES, type Mode } from "../../shared/capabilities/types.ts";

const MEANING: Record<Mode, string> = {
  plan: "reads only",
  default: "asks before changes",
  auto: "runs without asking",
};

export interface ModePickerProps {
  mode: Mode;
  onChange(mode: Mode): void;
  /** The modes offered, lowest first (every mode by default). */
  modes?: readonly Mode[];
}

export function ModePicker({ mode, onChange, modes = MODES }: ModePickerProps) {
  return (
    <label className="mode">
      Mode{" "}
      <select aria-label="Mode" value={mode} onChange={(event) => onChange(event.target.value as Mode)}>
        {modes.map((m) => (
          <option key={m} value={m}>
            {m}: {MEANING[m]}
          </option>
        ))}
      </select>
    </label>
  );
}
