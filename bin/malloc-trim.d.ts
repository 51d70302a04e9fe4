export declare const MALLOC_TUNABLE: string;
export declare function mallocTrimEnv(host: {
  platform: string;
  env: Record<string, string | undefined>;
  glibc: boolean;
  canExec: boolean;
}): Record<string, string | undefined> | null;
export declare function execWithMallocTrim(): void;
