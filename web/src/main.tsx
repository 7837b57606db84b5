import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import { refuseStrayFileDrops } from "./file-drops.ts";
import "./styles.css";

refuseStrayFileDrops(window);
const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
