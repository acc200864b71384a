import { widget4 } from "../widgets/widget-04.js";

export function render(root) {
<<<<<<< HEAD
  return widget4(root);
=======
  return widget4(root, true);
>>>>>>> feature
}
