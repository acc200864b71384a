import { widget19 } from "../widgets/widget-19.js";

export function render(root) {
<<<<<<< HEAD
  return widget19(root);
=======
  return widget19(root, true);
>>>>>>> feature
}
