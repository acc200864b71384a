import { tokenize } from "./parser";
import { load } from "./config";

const total: number = "not checked while the syntax is broken";
console.log(tokenize("abc"), load(), total);
let x = ;
