import { widget11 } from "../widgets/widget-11.js";

export function render(root) {
<<<<<<< HEAD
  return widget11(root);
=======
  return widget11(root, true);
>>>>>>> feature
}
