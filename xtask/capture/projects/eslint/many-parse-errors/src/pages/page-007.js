import { widget8 } from "../widgets/widget-08.js";

export function render(root) {
<<<<<<< HEAD
  return widget8(root);
=======
  return widget8(root, true);
>>>>>>> feature
}
