/** Images pasted or dropped into the editor go to the workspace's uploads; the page links the stored file. */
import { uploadFile, type StoredUpload } from "../api/pages.ts";

export function imageFiles(list: FileList | null | undefined): File[] {
  return [...(list ?? [])].filter((f) => f.type.startsWith("image/"));
}

export function uploadImage(slug: string, file: File, onProgress: (fraction: number) => void): Promise<StoredUpload> {
  const form = new FormData();
  form.append("file", file, file.name || "image.png");
  return uploadFile(slug, form, onProgress);
}
