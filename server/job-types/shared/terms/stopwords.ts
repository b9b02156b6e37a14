import lists from "stopwords-iso";

/**
 * Words that never make a knowledge point, a key term or a cloze answer: the stopwords-iso lists
 * (function words, pronouns, quantifiers) plus the generic nouns and verbs a lesson uses about
 * anything ("process", "factor", 过程, 因素, 利用, 发生).
 */
const GENERIC_EN =
  "process processes factor factors example examples way ways kind kinds type types part parts thing " +
  "things amount amounts form forms lot lots fact facts idea ideas case cases term terms result results " +
  "use uses step steps level levels rate side sides time times area areas purpose reason reasons topic " +
  "lesson chapter unit material text question questions answer answers student students teacher " +
  "law laws property properties object objects substance substances condition conditions equation equations " +
  "component components organism organisms movement region regions change changes value values number numbers " +
  "piece pieces section sections version versions combination tendency amount quantity quantities " +
  "item items list lists experiment experiments";

const GENERIC_ZH =
  "过程 方法 问题 方面 因素 部分 情况 时候 结果 内容 特点 种类 类型 形式 作用 影响 关系 条件 原因 现象 意义 " +
  "方式 程度 特征 东西 事物 地方 时间 时期 问题 例子 例如 比如 概念 知识 知识点 课文 本节 本章 学生 老师 " +
  "利用 发生 产生 进行 通过 形成 使用 需要 包括 属于 成为 称为 叫做 称作 具有 表示 说明 认为 发现 提出 出现 " +
  "变化 增加 减少 导致 决定 主要 重要 一定 不同 相同 一般 基本 常见 称 又称 叫 称之为 所谓 之一 其他 另外 " +
  "同时 此外 因此 所以 但是 然而 而且 并且 可以 能够 应该 必须 一种 一个 一些 这种 那种 这样 那样 如何 什么 " +
  "物体 物质 符号 公式 表达式 生物 运动 单位 大小 方向 性质 定律 规律 结论 装置 范围 标准 状态 数值 储存 " +
  "边长 主要内容 外力作用 地区 区域 实验 液体 气体 句子 短语 问句 人民 机关 三者 数量 数据 目标 步骤";

export const STOP_EN = new Set([...lists.en, ...GENERIC_EN.split(" ")].map((w) => w.toLowerCase()));
export const STOP_ZH = new Set([...lists.zh, ...GENERIC_ZH.split(" ")]);

/** A stop word of either language (English compared lower-cased). */
export const isStopWord = (w: string) => STOP_ZH.has(w) || STOP_EN.has(w.toLowerCase());
