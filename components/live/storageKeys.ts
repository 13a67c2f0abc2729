/** Where this browser keeps its identity per room (no socket code here: the landing page imports it). */
export const studentTokenKey = (code: string) => `classroom:token:${code}`;
export const hostKeyKey = (code: string) => `classroom:host:${code}`;
