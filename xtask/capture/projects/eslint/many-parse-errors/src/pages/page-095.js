import { widget6 } from "../widgets/widget-06.js";

export function render(root) {
<<<<<<< HEAD
  return widget6(root);
=======
  return widget6(root, true);
>>>>>>> feature
}
