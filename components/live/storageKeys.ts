/** Where this browser keeps its identity per room (no socket code here: the landing page imports it). */
export const studentTokenKey = (code: string) => `classroom:token:${code}`;
export const hostKeyKey = (code: string) => `classroom:host:${code}`;
/** Whether this teacher wants the correct answer marked on the console while a poll is open (a mirrored laptop would give it away). */
export const showAnswerKey = "classroom:showAnswer";
