// The worker's messages as the protocol declares them (protocol.js, TO_WORKER and TO_PAGE): a
// message of an undeclared type, or with a field its type does not declare, is refused where it
// is made, with its name, rather than sent and ignored on the other side.

import { STATES, TO_PAGE, TO_WORKER } from "./protocol.js";

export function message(declared, type, fields = {}) {
  if (!Object.hasOwn(declared, type)) throw new Error(`message type ${JSON.stringify(type)} is not declared`);
  for (const key of Object.keys(fields)) {
    if (!declared[type].includes(key))
      throw new Error(`field ${JSON.stringify(key)} of a ${type} message is not declared`);
  }
  if (type === "status" && !STATES.includes(fields.state))
    throw new Error(`status ${JSON.stringify(fields.state)} is not declared`);
  return { type, ...fields };
}

// Page to worker.
export const toWorker = (type, fields) => message(TO_WORKER, type, fields);
// Worker to page.
export const toPage = (type, fields) => message(TO_PAGE, type, fields);
export { WORKER_ERRORS } from "./protocol.js";
