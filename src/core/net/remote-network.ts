import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPrivateAddress } from "./address-class.ts";
import { RemoteError } from "./remote-error.ts";

type AddressClassifier = (address: string) => boolean;

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

const PRIVATE_NETWORK_MESSAGE =
  "remotes on private, loopback or link-local addresses are refused (set GIT_ALLOWLIST_PRIVATE=true to allow them)";

/**
 * Which addresses a git remote may be reached at. Every outbound connection (each HTTP request and
 * each redirect hop, each native git run) asks here right before connecting, and the connection is
 * made to the addresses returned, so a name that resolved to a public address when the remote was
 * saved cannot later be pointed at the server's own network (DNS rebinding).
 *
 * `isPrivate` is a field so a test server can declare one loopback address "public" and prove the
 * later checks (redirect targets) refuse the rest.
 */
export class RemoteNetwork {
  constructor(
    readonly allowPrivate: boolean,
    public isPrivate: AddressClassifier = isPrivateAddress,
  ) {}

  /**
   * The addresses `host` may be connected to: all of them when private ones are allowed; otherwise
   * every resolved address must be public (one private record refuses the name).
   */
  async resolve(host: string): Promise<CheckedAddress[]> {
    const name = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
    const literal = isIP(name);
    if (literal) {
      if (!this.allowPrivate && this.isPrivate(name)) throw privateRefused();
      return [{ address: name, family: literal as 4 | 6 }];
    }
    const lower = name.toLowerCase().replace(/\.$/, "");
    if (!this.allowPrivate && (lower === "localhost" || lower.endsWith(".localhost"))) throw privateRefused();
    let found: { address: string; family: number }[];
    try {
      found = await dnsLookup(lower, { all: true, verbatim: true });
    } catch {
      throw new RemoteError(`the host ${lower} could not be resolved`, "unreachable");
    }
    if (found.length === 0) throw new RemoteError(`the host ${lower} could not be resolved`, "unreachable");
    if (!this.allowPrivate && found.some((a) => this.isPrivate(a.address))) throw privateRefused();
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
}

const privateRefused = () => new RemoteError(PRIVATE_NETWORK_MESSAGE, "private_network");
