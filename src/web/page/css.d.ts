// Stylesheets the page imports for Bun to bundle.
declare module "*.css";
