/**
 * What an executable or native module is built for, read from its header: ELF (Linux), Mach-O
 * (macOS) or PE (Windows), the CPU, and whether it is a program or a loadable library.
 */
export interface BinaryFormat {
  format: "ELF" | "Mach-O" | "PE32+";
  cpu: "x86-64" | "aarch64" | "unknown";
  kind: "executable" | "library";
  /** Mach-O only: whether it carries a code signature (macOS on Apple silicon runs nothing unsigned). */
  signed?: boolean;
}

export function binaryFormat(b: Uint8Array): BinaryFormat | undefined {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46 && b[4] === 2 && b[5] === 1) {
    const machine = v.getUint16(18, true);
    const type = v.getUint16(16, true); // ET_EXEC 2, ET_DYN 3 (a shared object, or a PIE program)
    const hasInterpreter = elfHasInterpreter(v);
    return {
      format: "ELF",
      cpu: machine === 0x3e ? "x86-64" : machine === 0xb7 ? "aarch64" : "unknown",
      kind: type === 2 || hasInterpreter ? "executable" : "library",
    };
  }
  if (v.byteLength >= 32 && v.getUint32(0, true) === 0xfeedfacf) {
    const cpu = v.getUint32(4, true);
    const fileType = v.getUint32(12, true); // MH_EXECUTE 2, MH_DYLIB 6, MH_BUNDLE 8
    const commands = v.getUint32(16, true);
    let signed = false;
    for (let i = 0, at = 32; i < commands && at + 8 <= v.byteLength; i++) {
      if (v.getUint32(at, true) === 0x1d) signed = true; // LC_CODE_SIGNATURE
      at += v.getUint32(at + 4, true);
    }
    return {
      format: "Mach-O",
      cpu: cpu === 0x01000007 ? "x86-64" : cpu === 0x0100000c ? "aarch64" : "unknown",
      kind: fileType === 2 ? "executable" : "library",
      signed,
    };
  }
  if (b[0] === 0x4d && b[1] === 0x5a && v.byteLength > 0x40) {
    const pe = v.getUint32(0x3c, true);
    if (pe + 26 > v.byteLength || v.getUint32(pe, true) !== 0x00004550) return undefined; // "PE\0\0"
    const machine = v.getUint16(pe + 4, true);
    const characteristics = v.getUint16(pe + 22, true);
    if (v.getUint16(pe + 24, true) !== 0x20b) return undefined; // PE32+ optional header
    return {
      format: "PE32+",
      cpu: machine === 0x8664 ? "x86-64" : machine === 0xaa64 ? "aarch64" : "unknown",
      kind: characteristics & 0x2000 ? "library" : "executable", // IMAGE_FILE_DLL
    };
  }
  return undefined;
}

/** Whether a 64-bit little-endian ELF file has a PT_INTERP program header (a program, not a library). */
function elfHasInterpreter(v: DataView): boolean {
  const phoff = Number(v.getBigUint64(32, true));
  const phentsize = v.getUint16(54, true);
  const phnum = v.getUint16(56, true);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 4 > v.byteLength) return false;
    if (v.getUint32(at, true) === 3) return true; // PT_INTERP
  }
  return false;
}
