import { widget15 } from "../widgets/widget-15.js";

export function render(root) {
<<<<<<< HEAD
  return widget15(root);
=======
  return widget15(root, true);
>>>>>>> feature
}
