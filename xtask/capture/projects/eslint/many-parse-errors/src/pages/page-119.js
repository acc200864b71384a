import { widget30 } from "../widgets/widget-30.js";

export function render(root) {
<<<<<<< HEAD
  return widget30(root);
=======
  return widget30(root, true);
>>>>>>> feature
}
