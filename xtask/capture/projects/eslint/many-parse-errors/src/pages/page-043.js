import { widget14 } from "../widgets/widget-14.js";

export function render(root) {
<<<<<<< HEAD
  return widget14(root);
=======
  return widget14(root, true);
>>>>>>> feature
}
