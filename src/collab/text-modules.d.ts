// Markdown files imported `with { type: "text" }` are bundled into the executable as strings.
declare module "*.md" {
  const text: string;
  export default text;
}
