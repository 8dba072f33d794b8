// Stylesheets are bundled by Bun's bundler into the app's CSS output; importing one yields nothing.
declare module "*.css";
