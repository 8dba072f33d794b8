/**
 * `::embed[url]`: an allow-list of providers whose players are framed, each from its
 * privacy-friendly host where one exists (youtube-nocookie, Vimeo's do-not-track). The frame's
 * address is rebuilt from an id matched strictly in the author's URL — never the URL itself — so
 * nothing but the provider's player can be framed. Any other URL is an ordinary link.
 * The site's CSP (`frame-src`, src/publish/site-server.ts) must allow each provider's origin:
 * www.youtube-nocookie.com, player.vimeo.com, www.loom.com, codepen.io, www.figma.com, codesandbox.io.
 */
interface Embed {
  provider: string;
  src: string;
  title: string;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function embedFor(raw: string): Embed | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || (url.port && url.port !== "443" && url.port !== "80")) return null;
  const host = url.hostname.toLowerCase().replace(/^(www\.|m\.)/, "");
  const parts = url.pathname.split("/").filter(Boolean);

  if (host === "youtube.com" || host === "youtube-nocookie.com" || host === "youtu.be") {
    let id: string | null = null;
    if (host === "youtu.be") id = parts[0] ?? null;
    else if (parts[0] === "watch") id = url.searchParams.get("v");
    else if ((parts[0] === "embed" || parts[0] === "shorts" || parts[0] === "live") && parts[1]) id = parts[1];
    if (!id || !ID.test(id)) return null;
    const start = /^\d{1,6}$/.test(url.searchParams.get("t")?.replace(/s$/, "") ?? "") ? `?start=${url.searchParams.get("t")!.replace(/s$/, "")}` : "";
    return { provider: "youtube", src: `https://www.youtube-nocookie.com/embed/${id}${start}`, title: "YouTube video" };
  }
  if (host === "vimeo.com" || host === "player.vimeo.com") {
    const id = parts[0] === "video" ? parts[1] : parts[0];
    if (!id || !/^\d{1,12}$/.test(id)) return null;
    return { provider: "vimeo", src: `https://player.vimeo.com/video/${id}?dnt=1`, title: "Vimeo video" };
  }
  if (host === "loom.com") {
    if ((parts[0] !== "share" && parts[0] !== "embed") || !parts[1] || !/^[a-f0-9]{16,64}$/i.test(parts[1])) return null;
    return { provider: "loom", src: `https://www.loom.com/embed/${parts[1]}`, title: "Loom video" };
  }
  if (host === "codepen.io") {
    if (parts.length < 3 || (parts[1] !== "pen" && parts[1] !== "embed") || !ID.test(parts[0]!) || !ID.test(parts[2]!)) return null;
    return { provider: "codepen", src: `https://codepen.io/${parts[0]}/embed/${parts[2]}?default-tab=result`, title: "CodePen" };
  }
  if (host === "figma.com") {
    if (!["file", "design", "proto", "board"].includes(parts[0] ?? "") || !parts[1] || !/^[A-Za-z0-9]{10,64}$/.test(parts[1])) return null;
    const clean = `https://www.figma.com/${parts[0]}/${parts[1]}`;
    return { provider: "figma", src: `https://www.figma.com/embed?embed_host=quire&url=${encodeURIComponent(clean)}`, title: "Figma" };
  }
  if (host === "codesandbox.io") {
    if ((parts[0] !== "s" && parts[0] !== "embed" && parts[0] !== "p") || !parts[parts.length - 1] || !ID.test(parts[parts.length - 1]!)) return null;
    return { provider: "codesandbox", src: `https://codesandbox.io/embed/${parts[parts.length - 1]}`, title: "CodeSandbox" };
  }
  return null;
}
