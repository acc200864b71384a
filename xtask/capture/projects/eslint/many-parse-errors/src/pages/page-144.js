import { widget25 } from "../widgets/widget-25.js";

export function render(root) {
<<<<<<< HEAD
  return widget25(root);
=======
  return widget25(root, true);
>>>>>>> feature
}
