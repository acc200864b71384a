import { widget24 } from "../widgets/widget-24.js";

export function render(root) {
<<<<<<< HEAD
  return widget24(root);
=======
  return widget24(root, true);
>>>>>>> feature
}
