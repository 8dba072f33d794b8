/**
 * The files that make a service manager start `quire serve`: a systemd unit (Linux, system or
 * user), a launchd property list (macOS), and the Task Scheduler steps printed for Windows. Pure
 * text from the options: the same options give the same bytes, so writing twice changes nothing.
 */
export interface ServiceOptions {
  /** The command that starts quire: the executable (and, from source, the script). */
  command: string[];
  port: number;
  dataDir: string;
  /** A per-user service (systemd --user, a LaunchAgent) rather than a system one. */
  user: boolean;
}

export const SERVICE_NAME = "quire";
/** The launchd label (reverse-DNS by convention; the executable's own name keeps it unique enough). */
export const LAUNCHD_LABEL = "quire";

/** The default data directory of a system unit: systemd's StateDirectory=quire. */
export const SYSTEM_DATA_DIR = "/var/lib/quire";

/**
 * A systemd unit. The system unit runs as a dynamic user with the sandboxing systemd offers: no new
 * privileges, a read-only file system except the data directory (StateDirectory), private /tmp and
 * devices, no kernel tunables, modules, logs or clock, only IP and Unix sockets. Not
 * MemoryDenyWriteExecute: the JavaScript engine's JIT writes the code it runs. A user unit keeps to
 * what an unprivileged user manager can enforce.
 */
export function systemdUnit(o: ServiceOptions): string {
  const exec = [...o.command, "serve", "--port", String(o.port), "--data-dir", o.dataDir].map(systemdQuote).join(" ");
  const lines = [
    "# Written by `quire service install`; `quire service uninstall` removes it.",
    "[Unit]",
    "Description=Quire documentation platform",
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${exec}`,
    "Restart=on-failure",
    "RestartSec=2",
    // quire stops gracefully within 30 s (saves flushed, git work finished): give it that and more.
    "TimeoutStopSec=45",
    "KillSignal=SIGTERM",
    "UMask=0077",
    "NoNewPrivileges=yes",
  ];
  if (!o.user) {
    const inState = o.dataDir === SYSTEM_DATA_DIR || o.dataDir.startsWith(`${SYSTEM_DATA_DIR}/`);
    lines.push(
      "DynamicUser=yes",
      "StateDirectory=quire",
      "StateDirectoryMode=0700",
      "Environment=HOME=/var/lib/quire",
      ...(inState ? [] : [`ReadWritePaths=${systemdQuote(o.dataDir)}`]),
      "ProtectSystem=strict",
      // A data directory under /home or /root stays writable (ReadWritePaths over a read-only home).
      /^\/(home|root)(\/|$)/.test(o.dataDir) ? "ProtectHome=read-only" : "ProtectHome=yes",
      "PrivateTmp=yes",
      "PrivateDevices=yes",
      "ProtectKernelTunables=yes",
      "ProtectKernelModules=yes",
      "ProtectKernelLogs=yes",
      "ProtectControlGroups=yes",
      "ProtectClock=yes",
      "ProtectHostname=yes",
      "RestrictNamespaces=yes",
      "RestrictRealtime=yes",
      "RestrictSUIDSGID=yes",
      "LockPersonality=yes",
      "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
      "SystemCallArchitectures=native",
      // No capabilities, except binding a port below 1024 when one is asked for.
      o.port > 0 && o.port < 1024 ? "CapabilityBoundingSet=CAP_NET_BIND_SERVICE" : "CapabilityBoundingSet=",
      ...(o.port > 0 && o.port < 1024 ? ["AmbientCapabilities=CAP_NET_BIND_SERVICE"] : []),
    );
  }
  lines.push("", "[Install]", `WantedBy=${o.user ? "default.target" : "multi-user.target"}`, "");
  return lines.join("\n");
}

/** A launchd property list: started at load (login for an agent, boot for a daemon), restarted if it fails. */
export function launchdPlist(o: ServiceOptions): string {
  const args = [...o.command, "serve", "--port", String(o.port), "--data-dir", o.dataDir];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  <string>${xml(LAUNCHD_LABEL)}</string>`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...args.map((a) => `    <string>${xml(a)}</string>`),
    "  </array>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "  <key>ProcessType</key>",
    "  <string>Background</string>",
    "  <key>StandardErrorPath</key>",
    `  <string>${xml(`${o.dataDir}/service.log`)}</string>`,
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/** Windows has no unit file to write: the Task Scheduler command (and NSSM's) to run it at logon. */
export function windowsSteps(o: ServiceOptions): string {
  const run = [...o.command, "serve", "--port", String(o.port), "--data-dir", o.dataDir].map(windowsQuote).join(" ");
  return [
    "Windows: run quire at logon with Task Scheduler (in PowerShell or cmd):",
    "",
    `  schtasks /Create /TN Quire /SC ONLOGON /RL LIMITED /F /TR "${run.replaceAll('"', '\\"')}"`,
    "  schtasks /Run /TN Quire",
    "",
    // schtasks /End is TerminateProcess: no drain. `quire stop` asks the server itself.
    "Stop it with `quire stop` (in-flight saves finish first; `schtasks /End /TN Quire` would end it at once),",
    "remove it with `schtasks /Delete /TN Quire /F`.",
    "As a Windows service instead (starts at boot, before anyone logs in), with NSSM (https://nssm.cc):",
    "",
    `  nssm install Quire ${run}`,
    "  nssm start Quire",
    "",
  ].join("\n");
}

/** One ExecStart word: quoted when needed; `%` and `$` escaped so systemd substitutes nothing. */
function systemdQuote(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * One word of a Windows command line as programs split it (CommandLineToArgvW, the C runtime):
 * inside quotes, backslashes are literal except before a quote, where they must be doubled — so
 * `C:\quire data\` does not end in an escaped quote.
 */
function windowsQuote(word: string): string {
  if (word !== "" && !/[\s"]/.test(word)) return word;
  return `"${word.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, "$1$1")}"`;
}

function xml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}
