// What the daemon and the PNG worker say to each other.
export interface ToPngWorker {
  id: number;
  svg: string;
  scale: number;
}

export type FromPngWorker = { id: number; png: Uint8Array } | { id: number; error: string };
