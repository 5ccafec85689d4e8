// Files the bundler embeds and hands over as a path (`import p from "./x.ttf" with { type: "file" }`):
// a real path from source, a /$bunfs/ path inside the compiled binary; both readable with node:fs.
declare module "*.ttf" {
  const path: string;
  export default path;
}
declare module "*.wasm" {
  const path: string;
  export default path;
}
