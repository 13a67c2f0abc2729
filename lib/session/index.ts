export * from "./types";
export * from "./reducer";
export * from "./views";
export * from "./export";
export * from "./timeline";
export * from "./questions";
export * from "./roster";
