import { widget28 } from "../widgets/widget-28.js";

export function render(root) {
<<<<<<< HEAD
  return widget28(root);
=======
  return widget28(root, true);
>>>>>>> feature
}
