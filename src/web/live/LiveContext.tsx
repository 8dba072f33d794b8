/** One live connection per signed-in tab, shared through context; `useLive` re-renders on changes. */
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from "react";
import { LiveClient } from "./live.ts";

const Ctx = createContext<LiveClient | null>(null);

export function LiveProvider({ children }: { children: ReactNode }) {
  const [client] = useState(() => new LiveClient());
  useEffect(() => {
    client.start();
    return () => client.stop();
  }, [client]);
  return <Ctx.Provider value={client}>{children}</Ctx.Provider>;
}

export function useLive(): LiveClient | null {
  const client = useContext(Ctx);
  // A version counter makes React re-render when status or presence changes.
  useSyncExternalStore(
    (l) => client?.subscribe(l) ?? (() => {}),
    () => client?.version ?? 0,
  );
  return client;
}
