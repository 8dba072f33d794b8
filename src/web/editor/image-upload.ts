/** Images pasted or dropped into the editor go to the workspace's uploads; the page links the stored file. */
import { uploadWithProgress } from "../api/client.ts";
import { contentBase } from "../api/pages.ts";

export interface Uploaded {
  filename: string;
  url: string;
  content_type: string;
  size: number;
}

export function imageFiles(list: FileList | null | undefined): File[] {
  return [...(list ?? [])].filter((f) => f.type.startsWith("image/"));
}

export function uploadImage(slug: string, file: File, onProgress: (fraction: number) => void): Promise<Uploaded> {
  const form = new FormData();
  form.append("file", file, file.name || "image.png");
  return uploadWithProgress<Uploaded>(`${contentBase(slug)}/uploads`, form, onProgress);
}
