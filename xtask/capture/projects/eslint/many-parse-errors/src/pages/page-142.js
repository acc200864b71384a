import { widget23 } from "../widgets/widget-23.js";

export function render(root) {
<<<<<<< HEAD
  return widget23(root);
=======
  return widget23(root, true);
>>>>>>> feature
}
