import { widget20 } from "../widgets/widget-20.js";

export function render(root) {
<<<<<<< HEAD
  return widget20(root);
=======
  return widget20(root, true);
>>>>>>> feature
}
