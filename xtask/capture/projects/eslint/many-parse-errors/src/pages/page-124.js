import { widget5 } from "../widgets/widget-05.js";

export function render(root) {
<<<<<<< HEAD
  return widget5(root);
=======
  return widget5(root, true);
>>>>>>> feature
}
