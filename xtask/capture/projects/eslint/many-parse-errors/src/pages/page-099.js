import { widget10 } from "../widgets/widget-10.js";

export function render(root) {
<<<<<<< HEAD
  return widget10(root);
=======
  return widget10(root, true);
>>>>>>> feature
}
