/** Entry of the browser app: theme first (no flash), then the React tree. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "./styles.css";
import { applyTheme } from "./app/theme.ts";
import { AuthProvider } from "./app/auth.tsx";
import { App } from "./app/App.tsx";

applyTheme();
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <AuthProvider>
      <App />
    </AuthProvider>
  </StrictMode>,
);
