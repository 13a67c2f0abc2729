/**
 * The lesson model's public face. Renderers, the inspector, polls and the
 * server import from here only.
 */
export * from "./types";
export * from "./card";
export * from "./kubeCluster";
export * from "./events";
export * from "./scenarios";
export * from "./position";
export * from "./world";
export * from "./yaml";
export * from "./compare";
export * from "./versions";
export * from "./kubeStrings";
