import { widget22 } from "../widgets/widget-22.js";

export function render(root) {
<<<<<<< HEAD
  return widget22(root);
=======
  return widget22(root, true);
>>>>>>> feature
}
