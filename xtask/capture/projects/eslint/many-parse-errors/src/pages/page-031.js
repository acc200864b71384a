import { widget2 } from "../widgets/widget-02.js";

export function render(root) {
<<<<<<< HEAD
  return widget2(root);
=======
  return widget2(root, true);
>>>>>>> feature
}
