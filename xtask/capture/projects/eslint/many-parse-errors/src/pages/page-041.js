import { widget12 } from "../widgets/widget-12.js";

export function render(root) {
<<<<<<< HEAD
  return widget12(root);
=======
  return widget12(root, true);
>>>>>>> feature
}
