/**
 * The lesson model's public face. Renderers, the inspector, polls and the
 * server import from here only.
 */
export * from "./types";
export * from "./card";
export * from "./scenarios";
