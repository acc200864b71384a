import { widget27 } from "../widgets/widget-27.js";

export function render(root) {
<<<<<<< HEAD
  return widget27(root);
=======
  return widget27(root, true);
>>>>>>> feature
}
