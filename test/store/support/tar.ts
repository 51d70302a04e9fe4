/** A ustar archive of the given entries, as PGlite's `dumpDataDir` writes them (for the extractor's tests). */
export interface TarEntry {
  name: string;
  data?: Buffer;
  dir?: boolean;
  /** The type flag; default "5" for a directory, "0" for a file. */
  type?: string;
}

export function tarOf(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.dir ? Buffer.alloc(0) : (entry.data ?? Buffer.alloc(0));
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, "utf8");
    header.write("0000755\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124);
    header.write("00000000000\0", 136);
    header.write(entry.type ?? (entry.dir ? "5" : "0"), 156);
    header.write("ustar\0", 257);
    header.write("00", 263);
    header.write("        ", 148);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    parts.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
