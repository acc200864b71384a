import { widget26 } from "../widgets/widget-26.js";

export function render(root) {
<<<<<<< HEAD
  return widget26(root);
=======
  return widget26(root, true);
>>>>>>> feature
}
