import { widget3 } from "../widgets/widget-03.js";

export function render(root) {
<<<<<<< HEAD
  return widget3(root);
=======
  return widget3(root, true);
>>>>>>> feature
}
