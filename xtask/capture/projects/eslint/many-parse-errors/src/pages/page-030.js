import { widget1 } from "../widgets/widget-01.js";

export function render(root) {
<<<<<<< HEAD
  return widget1(root);
=======
  return widget1(root, true);
>>>>>>> feature
}
