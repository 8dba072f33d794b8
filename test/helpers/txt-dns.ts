import dns2 from "dns2";

/**
 * A DNS server on loopback that answers the TXT records a test sets (a custom domain is proved by
 * one). Pass `resolver` as the server's CUSTOM_DOMAIN_RESOLVER.
 */
export interface TxtDns {
  /** Name → TXT value; names absent here get an empty answer. */
  records: Map<string, string>;
  resolver: string;
  close(): Promise<void>;
}

type DnsServer = { listen(o: object): Promise<void>; addresses(): { udp: { port: number } }; close(): Promise<void> };

export async function startTxtDns(): Promise<TxtDns> {
  const records = new Map<string, string>();
  const { Packet } = dns2 as unknown as { Packet: any };
  const server = (dns2 as unknown as { createServer(o: object): DnsServer }).createServer({
    udp: true,
    handle: (request: any, send: (r: unknown) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      const value = records.get(q.name);
      if (value !== undefined && q.type === Packet.TYPE.TXT) {
        response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data: value });
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  return { records, resolver: `127.0.0.1:${server.addresses().udp.port}`, close: () => server.close() };
}
