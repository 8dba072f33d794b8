import { createRoot } from "react-dom/client";
import "./styles.css";
function App() { return <h1>Quire</h1>; }
createRoot(document.getElementById("root")!).render(<App />);
