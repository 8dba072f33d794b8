/** Entry of the browser app: theme first (no flash), the reads the address needs, then the React tree. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "./styles.css";
import { applyTheme } from "./app/theme.ts";
import { AuthProvider } from "./app/auth.tsx";
import { App } from "./app/App.tsx";
import { startBootReads } from "./app/boot-reads.ts";

applyTheme();
startBootReads(location.pathname);
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <AuthProvider>
      <App />
    </AuthProvider>
  </StrictMode>,
);
