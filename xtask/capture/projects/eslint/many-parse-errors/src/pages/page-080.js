import { widget21 } from "../widgets/widget-21.js";

export function render(root) {
<<<<<<< HEAD
  return widget21(root);
=======
  return widget21(root, true);
>>>>>>> feature
}
