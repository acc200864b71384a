import { widget9 } from "../widgets/widget-09.js";

export function render(root) {
<<<<<<< HEAD
  return widget9(root);
=======
  return widget9(root, true);
>>>>>>> feature
}
