import { widget18 } from "../widgets/widget-18.js";

export function render(root) {
<<<<<<< HEAD
  return widget18(root);
=======
  return widget18(root, true);
>>>>>>> feature
}
