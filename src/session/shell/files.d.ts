// The hook scripts are imported as text (Bun's `with { type: "text" }`), so the compiled binary carries them.
declare module "*.bash" {
  const text: string;
  export default text;
}
declare module "*.zsh" {
  const text: string;
  export default text;
}
declare module "*.fish" {
  const text: string;
  export default text;
}
