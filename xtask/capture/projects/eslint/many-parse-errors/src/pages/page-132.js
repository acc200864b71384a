import { widget13 } from "../widgets/widget-13.js";

export function render(root) {
<<<<<<< HEAD
  return widget13(root);
=======
  return widget13(root, true);
>>>>>>> feature
}
